// `node bench/run.js --size-mb 200` works too: the benchmark itself is run.mjs.
import('./run.mjs');
