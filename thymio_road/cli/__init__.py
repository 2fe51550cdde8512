"""The ``thymio-road`` command (``main``) and its subcommands.

The top layer: may import everything.
"""
