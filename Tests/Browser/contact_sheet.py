#!/usr/bin/env python3
"""Opens a warm-cache contact sheet in headless Chromium and reports what a person would see.

Usage: contact_sheet.py PAGE.html SCREENSHOT.png [--per-page N] [--filter TEXT] [--dark SCREENSHOT.png]

Prints one JSON object on standard output: how long the page took to be ready, what it says it
shows, the natural size of every <img> (after every image has loaded or failed), the placeholder
canvases that hold pixels, the failure rows, the rows shown for each preset and each format,
the effect of typing TEXT into the filter (and of
reloading the page after it) and of sorting by bytes, and where the screenshots are. The calling test judges the figures.

Needs Debian's `chromium` and `chromium-driver` and PyPI's `selenium` (scripts/install-deps --tests).
Waits on page state, never on sleeps; every wait allows minutes, for a busy CI machine.
"""
import argparse
import json
import pathlib
import shutil
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 180  # seconds: generous, a busy 2-core machine can be slow to start a browser


def browser():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1800", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            options.binary_location = path
            break
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


def body_data(driver, name):
    return driver.execute_script("return document.body.dataset[arguments[0]];", name)


def choose(driver, select_id, value):
    """Picks an option the way a user would (the change event included) and waits for the re-render."""
    driver.execute_script("""
        const select = document.getElementById(arguments[0]);
        delete document.body.dataset.shownSources;
        select.value = arguments[1];
        select.dispatchEvent(new Event('change'));""", select_id, value)
    WebDriverWait(driver, WAIT).until(lambda d: body_data(d, "shownSources") is not None)


def load_every_image(driver):
    """Makes lazy images load now, and waits until every one has loaded or failed."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const images = Array.from(document.querySelectorAll('#rows img'));
        Promise.all(images.map((img) => new Promise((resolve) => {
            img.loading = 'eager';
            if (img.complete) { resolve(); return; }
            img.addEventListener('load', resolve, { once: true });
            img.addEventListener('error', resolve, { once: true });
        }))).then(() => done(images.map((img) => ({
            src: img.getAttribute('src'), format: img.dataset.format,
            naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight }))));""")


def placeholders(driver):
    """Each placeholder canvas: its kind, size, and whether it holds visible, varied pixels."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('#rows canvas.placeholder')).map((canvas) => {
            const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let opaque = 0, min = 255, max = 0;
            for (let i = 0; i < pixels.length; i += 4) {
                if (pixels[i + 3] > 0) opaque++;
                min = Math.min(min, pixels[i]); max = Math.max(max, pixels[i]);
            }
            let r = 0, g = 0, b = 0, n = pixels.length / 4;
            for (let i = 0; i < pixels.length; i += 4) { r += pixels[i]; g += pixels[i + 1]; b += pixels[i + 2]; }
            return { kind: canvas.dataset.kind, width: canvas.width, height: canvas.height, opaque: opaque,
                     spread: max - min, mean: [r / n, g / n, b / n] };
        });""")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("screenshot")
    parser.add_argument("--per-page")
    parser.add_argument("--filter")
    parser.add_argument("--dark")
    arguments = parser.parse_args()

    result = {}
    driver = browser()
    try:
        started = time.monotonic()
        driver.get(pathlib.Path(arguments.page).resolve().as_uri())
        WebDriverWait(driver, WAIT).until(lambda d: body_data(d, "ready") == "true")
        result["readySeconds"] = round(time.monotonic() - started, 3)
        result["consoleErrors"] = [entry["message"] for entry in driver.get_log("browser")
                                   if entry.get("level") == "SEVERE"]
        if arguments.per_page:
            choose(driver, "per-page", arguments.per_page)
        result["matchingSources"] = int(body_data(driver, "matchingSources"))
        result["shownSources"] = int(body_data(driver, "shownSources"))
        result["shownVariants"] = int(body_data(driver, "shownVariants"))
        result["rows"] = len(driver.find_elements(By.CSS_SELECTOR, "#rows article.source"))
        result["summary"] = driver.find_element(By.ID, "summary").text
        result["totals"] = driver.find_element(By.ID, "totals").text
        result["failureRows"] = len(driver.find_elements(By.CSS_SELECTOR, "#failures tr.failure"))
        result["failuresText"] = driver.find_element(By.ID, "failures").text
        result["placeholders"] = placeholders(driver)
        started = time.monotonic()
        result["images"] = load_every_image(driver)
        result["imagesSeconds"] = round(time.monotonic() - started, 3)
        result["brokenFigures"] = len(driver.find_elements(By.CSS_SELECTOR, "#rows figure.broken"))

        # Sorting by bytes: the rows' totals must come out largest first.
        choose(driver, "sort", "bytes-desc")
        result["bytesDescending"] = driver.execute_script(
            "return Array.from(document.querySelectorAll('#rows article.source')).map((a) => Number(a.dataset.bytes));")
        choose(driver, "sort", "identifier")

        # Filtering by preset and by format: (sources, variants) shown for each option.
        result["byPreset"], result["byFormat"] = {}, {}
        for select_id, key in (("preset", "byPreset"), ("format", "byFormat")):
            options = driver.execute_script(
                "return Array.from(document.getElementById(arguments[0]).options).map((o) => [o.value, o.text]);",
                select_id)
            for value, name in options:
                if value == "-1":
                    continue
                choose(driver, select_id, value)
                result[key][name] = [int(body_data(driver, "matchingSources")), int(body_data(driver, "shownVariants"))]
            choose(driver, select_id, "-1")

        driver.execute_script("window.scrollTo(0, 0);")
        driver.save_screenshot(arguments.screenshot)
        result["screenshot"] = str(pathlib.Path(arguments.screenshot).resolve())

        if arguments.dark:
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
            result["darkBackground"] = driver.execute_script(
                "return getComputedStyle(document.body).backgroundColor;")
            driver.save_screenshot(arguments.dark)
            result["darkScreenshot"] = str(pathlib.Path(arguments.dark).resolve())

        if arguments.filter is not None:
            field = driver.find_element(By.ID, "filter")
            driver.execute_script("delete document.body.dataset.shownSources;")
            field.send_keys(arguments.filter)
            WebDriverWait(driver, WAIT).until(lambda d: body_data(d, "shownSources") is not None)
            result["filteredSources"] = int(body_data(driver, "matchingSources"))
            result["filteredIdentifiers"] = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#rows .id")]
            result["filteredFailuresText"] = driver.find_element(By.ID, "failures").text
            result["filteredFailureRows"] = len(driver.find_elements(By.CSS_SELECTOR, "#failures tr.failure"))
            # The view is kept in the address: a reload shows the same rows.
            result["hash"] = driver.execute_script("return location.hash;")
            driver.refresh()
            WebDriverWait(driver, WAIT).until(lambda d: body_data(d, "ready") == "true")
            result["sourcesAfterReload"] = int(body_data(driver, "matchingSources"))
    finally:
        driver.quit()
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
