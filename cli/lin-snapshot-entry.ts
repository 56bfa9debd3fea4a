// The script `interleave lin`'s startup snapshot is built from (bin/lin-snapshot.js bundles
// it into one script, as --build-snapshot requires): the warm-up runs during the build;
// a process started from the blob runs main.
import { startupSnapshot } from 'node:v8';
import { main, warmUp } from './lin-snapshot.ts';

startupSnapshot.setDeserializeMainFunction(() => void main());
void warmUp();
