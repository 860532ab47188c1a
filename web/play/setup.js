// The new-game form: a preset, its options (as GET /v1/rules describes them), your name,
// the seats (you and 2 to 7 others: AIs, or open seats for people to join by a link) and
// the rounds in the series.

import { t } from "./i18n.js";

const LEVELS = ["easy", "normal", "hard", "expert"];
const OPEN = "open"; // a seat for a person who joins with the table's link
const MIN_SEATS = 3;
// Set by the seats and the rounds fields, not by option toggles.
const NOT_TOGGLED = new Set(["players", "max_players", "rounds"]);

const $ = (id) => document.getElementById(id);

export class SetupForm {
  constructor(rules, onSubmit) {
    this.rules = rules;
    this.levels = ["normal", "normal", "normal"];
    const preset = $("preset");
    preset.replaceChildren(...Object.keys(rules.presets).map((name) => new Option(name, name)));
    preset.addEventListener("change", () => this.loadPreset());
    $("add-ai").addEventListener("click", () => this.changeSeats(+1));
    $("remove-ai").addEventListener("click", () => this.changeSeats(-1));
    $("setup").addEventListener("submit", (event) => {
      event.preventDefault();
      onSubmit(this.request());
    });
    this.loadPreset();
  }

  get preset() {
    return this.rules.presets[$("preset").value];
  }

  get maxSeats() {
    return this.preset.max_players;
  }

  /** A preset sets every option's starting value; the player may then toggle them. */
  loadPreset() {
    const preset = this.preset;
    $("rounds").value = preset.rounds;
    $("options").replaceChildren(...this.rules.options
      .filter((option) => !NOT_TOGGLED.has(option.name))
      .map((option) => optionField(option, preset[option.name])));
    this.levels = this.levels.slice(0, this.maxSeats - 1);
    this.render();
  }

  changeSeats(delta) {
    if (delta > 0) this.levels.push(this.levels.at(-1));
    else this.levels.pop();
    this.render();
  }

  /** Labels again in the language just chosen; the values stay as they are. */
  translate() {
    for (const input of $("options").querySelectorAll("[data-option]")) {
      input.nextElementSibling.textContent = t(`opt_${input.dataset.option}`);
    }
    this.render();
  }

  render() {
    const you = document.createElement("li");
    you.textContent = t("you");
    const ais = this.levels.map((level, index) => {
      const item = document.createElement("li");
      const select = document.createElement("select");
      select.dataset.testid = `ai-${index + 1}`;
      select.setAttribute("aria-label", t("seat", { n: index + 1 }));
      select.replaceChildren(...LEVELS.map((name) => new Option(t(`level_${name}`), name)),
        new Option(t("open_seat"), OPEN));
      select.value = level;
      select.addEventListener("change", () => { this.levels[index] = select.value; });
      item.append(select);
      return item;
    });
    $("seat-list").replaceChildren(you, ...ais);
    $("add-ai").disabled = this.levels.length + 1 >= this.maxSeats;
    $("remove-ai").disabled = this.levels.length + 1 <= MIN_SEATS;
  }

  /** The POST /v1/games body: only the options that differ from the preset. With an open
   * seat the game waits for its players. */
  request() {
    const preset = this.preset;
    const options = {};
    for (const input of $("options").querySelectorAll("[data-option]")) {
      const value = input.type === "checkbox" ? input.checked
        : input.type === "number" ? Number(input.value) : input.value;
      if (value !== preset[input.dataset.option]) options[input.dataset.option] = value;
    }
    const name = $("your-name").value.trim();
    return {
      preset: $("preset").value,
      seats: [name ? { kind: "human", name } : { kind: "human" },
        ...this.levels.map((level) => (level === OPEN ? { kind: OPEN }
          : { kind: "ai", engine: level }))],
      options,
      rounds: Number($("rounds").value),
    };
  }
}

function optionField(option, value) {
  const label = document.createElement("label");
  label.className = "option";
  label.title = option.description; // the API describes options in English only
  let input;
  if (option.type === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value;
  } else if (option.type === "int") {
    input = document.createElement("input");
    input.type = "number";
    input.value = value;
  } else {
    input = document.createElement("select");
    input.replaceChildren(...option.choices.map((choice) => new Option(choice, choice)));
    input.value = value;
  }
  input.dataset.option = option.name;
  input.dataset.testid = `option-${option.name}`;
  const text = document.createElement("span");
  text.textContent = t(`opt_${option.name}`);
  label.append(input, text);
  return label;
}
