"""``python -m thymio_road.cli``: the ``thymio-road`` command."""
import sys

from thymio_road.cli.main import main

sys.exit(main())
