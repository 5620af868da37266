"""The online solver: FMDV and its vertical and horizontal cuts; pure computation over the index."""
