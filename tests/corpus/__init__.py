"""Programs the clinic tests compile. Each graph break sits on a line marked ``# BREAK``."""
