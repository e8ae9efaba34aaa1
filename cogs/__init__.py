"""Discord adapters, one module (or package) per feature. Each is found and loaded automatically."""
