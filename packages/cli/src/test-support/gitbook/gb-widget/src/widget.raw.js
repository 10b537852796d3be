(() => {
  var settings = { room: '<ROOM>', site: '<SITE>', mode: '<MODE>' };
  window.widgetSettings = settings;
})();
