from inspector.cli import main

main()
