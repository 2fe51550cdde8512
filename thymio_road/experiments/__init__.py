# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Reproductions of the report's experiments (barcode reading, intersection passages) and their
scoring against ground truth.

Imports ``runtime``, ``analysis`` and everything below them.
"""
