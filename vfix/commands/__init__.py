"""One module per `vfix` sub-command; each only parses options and calls the library."""
