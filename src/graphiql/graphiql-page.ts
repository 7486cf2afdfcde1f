import { readFileSync } from 'node:fs';
import type { GraphiQLOptions } from 'graphql-yoga';

/** Where the GraphiQL assets are served from: this gateway, never a CDN (air-gapped sites). */
export const graphiqlAssetsPath = '/graphiql-assets';

/** GraphiQL's first tab: the tested example that reads all three upstreams. */
export const defaultQuery = `# Welcome to the VMware automation gateway. Press the run button (or
# Ctrl-Enter); the Docs pane describes every type. More in examples/.
#
${readFileSync(new URL('../../examples/explore.graphql', import.meta.url), 'utf8')}`;

/** The GraphiQL page: a few hundred bytes of HTML that loads its assets from this gateway. */
export function renderGraphiqlPage(options: GraphiQLOptions | undefined): string {
  const opts = JSON.stringify({
    ...options,
    defaultQuery,
    title: 'VMware automation gateway',
  }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>VMware automation gateway</title>
<link rel="icon" href="${graphiqlAssetsPath}/favicon">
<link rel="stylesheet" href="${graphiqlAssetsPath}/graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root"></div>
<script>
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (moduleId, label) {
    return '${graphiqlAssetsPath}/' + label + '.worker.js';
  },
};
</script>
<script src="${graphiqlAssetsPath}/graphiql.js"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${opts});</script>
</body>
</html>
`;
}
