// Entry point of the single executable (scripts/build-binaries.mjs bundles from here).
import { cli } from './main.js';

cli();
