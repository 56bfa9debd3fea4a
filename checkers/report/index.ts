// The renderings' entry point (the package's `interleave/report`): text and HTML reports
// of explorations and linearizability checks, and counterexamples as ITF.
export { renderCounterexample, renderExploreText, replayPath } from './explore-text.ts';
export { renderCounterexampleHtml, type ExploreHtmlOptions } from './explore-html.ts';
export { renderLinText, type LinTextOptions } from './lin-text.ts';
export { renderLinHtml, type LinHtmlOptions } from './lin-html.ts';
export { counterexampleToItf, toItf, type ItfTrace, type ItfValue } from '../explore/itf.ts';
