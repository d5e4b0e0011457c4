"""tinyserve: model classes and serving utilities."""
__version__ = "0.5.0"
