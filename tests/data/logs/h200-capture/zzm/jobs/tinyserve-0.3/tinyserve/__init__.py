"""tinyserve: model classes and serving utilities."""
__version__ = "0.3.2"
