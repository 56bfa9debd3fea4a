// Property tests draw from one fixed seed unless they name their own, so the same checkout
// runs the same cases on every machine and every run (a failure reproduces as it is).
import fc from 'fast-check';

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: 20261123 });
