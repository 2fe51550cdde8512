# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The ``thymio-road`` command (``main``) and its subcommands.

The top layer: may import everything.
"""
