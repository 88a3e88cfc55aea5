from cfglint.cli import main

raise SystemExit(main())
