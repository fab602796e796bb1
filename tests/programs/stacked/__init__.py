"""A tiny GPT-style decoder, in a package of its own as real models are (the driver is ``stacked_blocks``)."""
