from pagesieve.cli import main

raise SystemExit(main())
