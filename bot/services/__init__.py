"""Domain services: plain values and a store session in, plain results out; no discord objects."""
