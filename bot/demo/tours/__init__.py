"""Demo tour steps, one module per feature (ORDER, async def tour(demo))."""
