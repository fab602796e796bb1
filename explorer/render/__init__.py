"""Views of a CaptureData: plain text (CLI, repr) and standalone HTML."""
