// The tournament's field picker (the console): the controllers a page of FIELD_PAGE at a time,
// a filter narrowing them by name. What is chosen stays chosen across pages and filters, and is
// counted; the field is sent in the listing's order (its seeding), whatever page each was
// chosen on. An entry may be disabled (a gone worker's run), with why as its title.

import { h } from "./site.js";

export const FIELD_PAGE = 48;

/** items: [{value, label, disabled, title}]; `set(items)` draws them again, `chosen()` gives
 * the values chosen in the items' order. */
export function fieldPicker(legend) {
  let items = [];
  const picked = new Set();
  let page = 0;
  const filter = h("input", {
    type: "search",
    class: "site-field-filter",
    "aria-label": "filter the field's controllers",
    placeholder: "filter by name",
    oninput: () => {
      page = 0;
      draw();
    },
  });
  const count = h("span", { class: "site-note site-field-count", role: "status" });
  const pager = h("span", { class: "site-pager site-field-pager" });
  const boxes = h("div", { class: "site-field-boxes" });
  const element = h(
    "fieldset",
    { class: "site-field" },
    h("legend", {}, legend),
    h("div", { class: "site-field-tools" }, filter, " ", count, " ", pager),
    boxes,
  );

  const matching = () => {
    const needle = filter.value.trim().toLowerCase();
    return needle ? items.filter((i) => i.label.toLowerCase().includes(needle)) : items;
  };

  function counted(shown) {
    const of = filter.value.trim() ? `; ${shown} of ${items.length} match the filter` : ` of ${items.length}`;
    count.textContent = `${picked.size} chosen${of}`;
  }

  function draw() {
    const shown = matching();
    const pages = Math.max(1, Math.ceil(shown.length / FIELD_PAGE));
    page = Math.min(page, pages - 1);
    const turn = (by) => () => {
      page += by;
      draw();
    };
    pager.replaceChildren(
      ...(pages > 1
        ? [
            h("button", { type: "button", class: "site-field-previous", disabled: page === 0, onclick: turn(-1) }, "previous"),
            h("span", { class: "site-field-page" }, ` page ${page + 1} of ${pages} `),
            h("button", { type: "button", class: "site-field-next", disabled: page === pages - 1, onclick: turn(1) }, "next"),
          ]
        : []),
    );
    const box = (i) =>
      h("input", {
        type: "checkbox",
        value: i.value,
        disabled: i.disabled,
        checked: picked.has(i.value),
        onchange: (e) => {
          if (e.target.checked) picked.add(i.value);
          else picked.delete(i.value);
          // The same module listed twice (a worker's run, and stored): both show it.
          for (const other of boxes.querySelectorAll("input")) if (other.value === i.value) other.checked = e.target.checked;
          counted(shown.length);
        },
      });
    boxes.replaceChildren(
      ...shown.slice(page * FIELD_PAGE, (page + 1) * FIELD_PAGE).map((i) => h("label", { class: "site-check", title: i.title || null }, box(i), ` ${i.label}`)),
    );
    if (!shown.length) boxes.append(h("span", { class: "site-note" }, items.length ? "no controller's name has that in it" : "no controller yet"));
    counted(shown.length);
  }

  function set(next) {
    items = next;
    // What can no longer be chosen (gone, or no longer listed) is no longer chosen.
    const open = new Set(items.filter((i) => !i.disabled).map((i) => i.value));
    for (const value of [...picked]) if (!open.has(value)) picked.delete(value);
    draw();
  }

  function chosen() {
    const seen = new Set();
    return items.map((i) => i.value).filter((v) => picked.has(v) && !seen.has(v) && seen.add(v));
  }

  return { element, set, chosen };
}
