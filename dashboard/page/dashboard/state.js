// What the views share: the view shown, the pages, the page whose log is open, the history
// entry selected (and the entries listed, by key), the diff's layout.
export const state = { view: 'pages', pages: [], logPage: null, selectedCommit: null, diffMode: 'unified', history: null };
