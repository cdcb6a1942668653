"""The checkout as a whole: the layers, the clause-coverage table, the extras and the README's first command."""
