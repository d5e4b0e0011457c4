from vfix.cli import main

main()
