// Included by cli.kdsl through ksc-run -I.
KSC_FUNC int scaled(int x) { return x * FACTOR; }
