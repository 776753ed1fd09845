// gradcli report: the script's lines and the graph's nodes point at each other.
(function () {
  "use strict";
  function lit(elements, on) {
    elements.forEach(function (element) { element.classList.toggle("lit", on); });
  }
  function lineCells(line) {
    return Array.prototype.slice.call(document.querySelectorAll('.script [data-line="' + line + '"]'));
  }
  function graphNodes(line) {
    return Array.prototype.slice.call(document.querySelectorAll('#graph [data-line="' + line + '"]'));
  }
  // hovering a node of the graph marks the line of the script that made it, and back
  document.querySelectorAll("#graph [data-line]").forEach(function (node) {
    var line = node.getAttribute("data-line");
    node.addEventListener("mouseenter", function () { lit(lineCells(line), true); });
    node.addEventListener("mouseleave", function () { lit(lineCells(line), false); });
  });
  document.querySelectorAll(".script .ln.made").forEach(function (cell) {
    var line = cell.getAttribute("data-line");
    cell.addEventListener("mouseenter", function () { lit(graphNodes(line), true); });
    cell.addEventListener("mouseleave", function () { lit(graphNodes(line), false); });
    cell.addEventListener("click", function () {
      var first = graphNodes(line)[0];
      if (first) { first.scrollIntoView({block: "center", inline: "center"}); }
    });
  });
})();
