// Shared by both pages: the token comes in the link's fragment (#token=…, never sent to a server),
// is kept in this browser's local storage under `key`, and leaves the address bar.
"use strict";
window.cranfieldToken = function (key) {
  const found = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (found) {
    localStorage.setItem(key, found[1]);
    history.replaceState(null, "", location.pathname);
  }
  return localStorage.getItem(key);
};
