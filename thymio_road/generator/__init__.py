"""Generated road networks: random but valid maps built from the project's own pieces
(docs/generated_maps.md)."""
