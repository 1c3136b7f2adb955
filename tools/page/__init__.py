"""What runs in the reader's browser too: standard library only, relative imports only."""
