"""The user controls over HTTP: object states; taking control of a resident, go and say."""
