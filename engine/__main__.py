from adapters.cli import main

raise SystemExit(main())
