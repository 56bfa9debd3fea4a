import { exploreSync } from '../../checkers/explore/index.ts';
import { spec } from './index.ts';
const [cfgName, over, variant, lim] = process.argv.slice(2);
const c = spec.configs.find((x) => x.name === cfgName)!;
const t = Date.now();
const r = exploreSync(spec.build({ ...c.config, ...JSON.parse(over) } as never, variant === '-' ? undefined : variant), { linearizability: 'off', timeLimitMs: Number(lim ?? 60000) });
const v = r.violations[0];
console.log(cfgName, over, variant, r.status, r.incompleteReason ?? '', r.states, r.transitions, r.depth, v?.property, v?.message, v?.steps.length, (Date.now()-t)/1000+'s');
if (v) v.steps.forEach((s, i) => console.log(`  ${i + 1}. ${s.action.label}`));
