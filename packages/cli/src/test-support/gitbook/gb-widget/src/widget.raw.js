(() => {
  window.widgetSettings = { room: __ROOM__, site: __SITE__, mode: __MODE__ };
})();
