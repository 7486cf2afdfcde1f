import type { GraphiQLOptions } from 'graphql-yoga';

/** Where the GraphiQL assets are served from: this gateway, never a CDN (air-gapped sites). */
export const graphiqlAssetsPath = '/graphiql-assets';

export const defaultQuery = `# Welcome to the VMware automation gateway.
# One query reads the orchestration server, the catalog and the network manager;
# press the run button (or Ctrl-Enter). Use the Docs pane to explore the schema.
query Explore {
  workflows(first: 5) {
    totalCount
    nodes {
      id
      name
      categoryName
      version
    }
  }
  providers(first: 5) {
    totalCount
    nodes {
      id
      name
    }
  }
  ipSets {
    id
    name
    addresses
  }
}
`;

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
