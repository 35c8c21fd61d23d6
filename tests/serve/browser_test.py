#!/usr/bin/python3
"""The explorer page in headless Chromium against a running dtb serve: loads the page, enters a FEN,
checks the moves and values shown against `dtb probe` (run here), plays moves by clicking a move, by
click-click and by drag, checks the board, the history keys and the URL, shows the optimal line,
and saves a screenshot.

Usage: browser_test.py URL DTB DB_DIR SCREENSHOT.png"""
import subprocess
import sys
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL, DTB, DB, SCREENSHOT = sys.argv[1:5]


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def cli(*args):
    return subprocess.run([DTB, *args], capture_output=True, text=True, timeout=20, check=True).stdout


def probe_cli(fen):
    """(value, dtw, [(move, value, dtw)...]) as `dtb probe --moves --dtw` prints them."""
    fields = cli("probe", "--db", DB, "--moves", "--dtw", fen).rstrip("\n").split("\t")
    moves = [(fields[i].split("=")[0], fields[i].split("=")[1], fields[i + 1]) for i in range(3, len(fields), 2)]
    return fields[1], fields[2], moves


def fen_after(fen, move):
    for line in cli("moves", fen).splitlines():
        played, after = line.split("\t")
        if played == move:
            return after
    fail(f"{move} is not a move of {fen}")


def pieces_of(fen):
    """{square: 'white-man'|'white-king'|'black-man'|'black-king'} of a canonical FEN."""
    pieces = {}
    for section in fen.split(":")[1:]:
        colour = "white" if section[0] == "W" else "black"
        for item in filter(None, section[1:].split(",")):
            king = item.startswith("K")
            pieces[int(item.lstrip("K"))] = f"{colour}-{'king' if king else 'man'}"
    return pieces


def options():
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,1000",
                "--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps", "--hide-scrollbars"]:
        o.add_argument(arg)
    return o


class Page:
    def __init__(self, driver):
        self.d = driver

    def wait_for(self, fen):
        WebDriverWait(self.d, 10).until(
            lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-fen") == fen
            and d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready",
            f"the page never showed {fen}")

    def moves(self):
        return [(b.get_attribute("data-move"), b.get_attribute("data-value"), b.get_attribute("data-dtw"))
                for b in self.d.find_elements(By.CSS_SELECTOR, "#moves button")]

    def board(self):
        return {int(g.get_attribute("data-square")): g.get_attribute("data-piece")
                for g in self.d.find_elements(By.CSS_SELECTOR, "#board g.piece")}

    def square(self, s):
        return self.d.find_element(By.CSS_SELECTOR, f'#board rect[data-square="{s}"]')

    def check_position(self, fen):
        """The board, the moves and the values shown are those of dtb probe, the URL carries the FEN."""
        self.wait_for(fen)
        if self.board() != pieces_of(fen):
            fail(f"{fen}: board shows {self.board()}")
        value, dtw, moves = probe_cli(fen)
        if self.moves() != moves:
            fail(f"{fen}: moves shown {self.moves()}, dtb probe says {moves}")
        shown = self.d.find_element(By.ID, "position-value").text
        if shown != value or (dtw and dtw not in self.d.find_element(By.ID, "position-dtw").text):
            fail(f"{fen}: value shown {shown!r}, dtb probe says {value} {dtw}")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.d.current_url).query)
        if query.get("fen") != [fen]:
            fail(f"{fen}: URL {self.d.current_url}")
        if self.d.find_element(By.ID, "fen").get_attribute("value") != fen:
            fail(f"{fen}: FEN field")

    def click_square(self, s):
        """A click in the middle of square s, on whatever piece stands there, as a mouse would."""
        ActionChains(self.d).move_to_element(self.square(s)).click().perform()

    def enter_fen(self, fen):
        field = self.d.find_element(By.ID, "fen")
        field.clear()
        field.send_keys(fen)
        self.d.find_element(By.CSS_SELECTOR, "#fen-form button[type=submit]").click()


def main():
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options())
    try:
        driver.set_page_load_timeout(20)
        page = Page(driver)
        driver.get(URL)
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready")

        # A FEN entered in the field (not canonical: ranges and black first).
        start = "W:W33,K46:BK5,16"
        page.enter_fen("W:B16,K5:WK46,33")
        page.check_position(start)
        if len(page.moves()) < 5 or {v for _, v, _ in page.moves()} != {"win", "loss"}:
            fail(f"expected wins and losses: {page.moves()}")

        # Click the best move in the list.
        best = page.moves()[0][0]
        driver.find_element(By.CSS_SELECTOR, f'#moves button[data-move="{best}"]').click()
        after_best = fen_after(start, best)
        page.check_position(after_best)

        # Back with the arrow key, forward with the button.
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
        page.check_position(start)
        driver.find_element(By.ID, "forward").click()
        page.check_position(after_best)
        driver.find_element(By.ID, "back").click()
        page.check_position(start)

        # Click a piece, then its target square: the king 46-28.
        page.click_square(46)
        page.click_square(28)
        page.check_position(fen_after(start, "46-28"))
        driver.find_element(By.ID, "back").click()
        page.check_position(start)

        # Drag the man 33 to 29.
        ActionChains(driver).drag_and_drop(page.square(33), page.square(29)).perform()
        page.check_position(fen_after(start, "33-29"))
        driver.find_element(By.ID, "back").click()
        page.check_position(start)

        # Keyboard only: Tab to the moves, Enter plays the focused one.
        first = driver.find_element(By.CSS_SELECTOR, "#moves button")
        driver.execute_script("arguments[0].focus()", first)
        driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        second = page.moves()[1][0]
        if driver.switch_to.active_element.get_attribute("data-move") != second:
            fail("the down arrow does not move the focus through the moves")
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        page.check_position(fen_after(start, second))

        # An invalid FEN: an error, the position stays.
        page.enter_fen("W:W99")
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "error").is_displayed())
        if "99" not in driver.find_element(By.ID, "error").text:
            fail(f"invalid FEN: {driver.find_element(By.ID, 'error').text!r}")

        # A shared URL opens its position; the optimal line is dtb line's.
        shot = "W:W32,K47:BK3,19"
        driver.get(URL + "?fen=" + urllib.parse.quote(shot))
        page.check_position(shot)
        line_fen = "W:W33:B2"
        page.enter_fen(line_fen)
        page.check_position(line_fen)
        driver.find_element(By.ID, "line-button").click()
        want = [l.split("\t")[0] for l in cli("line", "--db", DB, line_fen).splitlines()[1:]]
        WebDriverWait(driver, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#line button")) == len(want))
        shown = [b.get_attribute("data-move") for b in driver.find_elements(By.CSS_SELECTOR, "#line button")]
        if shown != want:
            fail(f"optimal line shown {shown}, dtb line says {want}")

        # The screenshot: a position with wins, draws and losses, its optimal line, a piece selected.
        driver.get(URL + "?fen=" + urllib.parse.quote(SHOT_FEN))
        page.check_position(SHOT_FEN)
        driver.find_element(By.ID, "line-button").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#line button"))
        page.click_square(SHOT_SELECT)
        driver.save_screenshot(SCREENSHOT)
        print(f"browser test passed; screenshot {SCREENSHOT}")
    finally:
        driver.quit()


SHOT_FEN = "W:WK19,36:B9,35"
SHOT_SELECT = 19
main()
