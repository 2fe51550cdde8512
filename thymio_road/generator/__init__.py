"""Generated road networks: random but valid maps built from the project's own pieces
(docs/generated_maps.md). `generate_map(seed, size)` is the entry point; generated:N names them."""
from thymio_road.generator.generate import SIZES, GeneratedMap, GeneratorError, generate_map

__all__ = ['SIZES', 'GeneratedMap', 'GeneratorError', 'generate_map']
