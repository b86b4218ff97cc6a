"""`python -m lvlmbench` runs the same CLI as the `lvlmbench` console script."""

from lvlmbench.cli import main

if __name__ == "__main__":
    main()
