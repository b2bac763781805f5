// Building DOM nodes: every page writes untrusted text (controller names, details,
// notes) with text nodes, never as markup.

/**
 * h("a", {href: "/x", class: "c", onclick: f}, "text", child) -> an element.
 * Strings among the children become text nodes (Element.append), so a name
 * like "<b>" shows as those four characters.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}
