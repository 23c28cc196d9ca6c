"""HTML reports (per submission and per class), rendered from jinja2 templates."""
