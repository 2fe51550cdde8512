# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Generated road networks: random but valid maps built from the project's own pieces
(docs/generated_maps.md). `generate_map(seed, size)` is the entry point; generated:N names them.
"""
from thymio_road.generator.generate import generate_map, GeneratedMap, GeneratorError, SIZES

__all__ = ['SIZES', 'GeneratedMap', 'GeneratorError', 'generate_map']
