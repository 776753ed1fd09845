// gradcli report: the script's lines and the graph's nodes point at each other.
(function () {
  "use strict";
  function all(selector) {
    return Array.prototype.slice.call(document.querySelectorAll(selector));
  }
  function lit(elements, on) {
    elements.forEach(function (element) { element.classList.toggle("lit", on); });
  }
  // a backward node's box says where the script made it ("line 12", "line 5, iteration 3")
  all("#graph g.node.backward").forEach(function (node) {
    if (node.hasAttribute("data-line")) { return; }
    var texts = node.querySelectorAll("text");
    for (var i = 0; i < texts.length; i++) {
      var found = /^line (\d+)\b/.exec(texts[i].textContent.trim());
      if (found) { node.setAttribute("data-line", found[1]); break; }
    }
  });
  function lineCells(line) { return all('.script [data-line="' + line + '"]'); }
  function graphNodes(line) { return all('#graph g.node[data-line="' + line + '"]'); }
  // hovering a node of the graph marks the line of the script that made it, and back
  all("#graph g.node[data-line]").forEach(function (node) {
    var line = node.getAttribute("data-line");
    node.addEventListener("mouseenter", function () { lit(lineCells(line), true); });
    node.addEventListener("mouseleave", function () { lit(lineCells(line), false); });
    node.addEventListener("click", function () {
      var cell = document.getElementById("L" + line);
      if (cell) { cell.scrollIntoView({block: "center"}); }
    });
  });
  all(".script .ln.made").forEach(function (cell) {
    var line = cell.getAttribute("data-line");
    cell.addEventListener("mouseenter", function () { lit(graphNodes(line), true); });
    cell.addEventListener("mouseleave", function () { lit(graphNodes(line), false); });
    cell.addEventListener("click", function () {
      var first = graphNodes(line)[0];
      if (first) { first.scrollIntoView({block: "center", inline: "center"}); }
    });
  });
})();
