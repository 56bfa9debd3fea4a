// Builds the package's JavaScript and declaration files into dist/ (tsconfig.build.json):
// `npm run build`, and `npm pack` / `npm publish` through `prepack`. dist/ is emptied
// first, so that nothing stale is shipped. Then `interleave lin`'s startup snapshot for
// this checkout and this node (bin/lin-snapshot.js; never shipped: an install builds its
// own, npm's postinstall).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, [join(root, 'bin/lin-snapshot.js')], { cwd: root, stdio: 'inherit' });
