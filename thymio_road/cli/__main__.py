# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""``python -m thymio_road.cli``: the ``thymio-road`` command."""
import sys

from thymio_road.cli.main import main

sys.exit(main())
