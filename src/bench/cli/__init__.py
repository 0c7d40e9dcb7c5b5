"""The command line. Thin: parse, call one library function, render, pick the exit code."""
