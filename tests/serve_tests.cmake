# dtb serve (serve/, tools/cmd_serve.cpp) on the 2-4 piece build with distances to win of the
# adjudicate suite (fixture adjudicate_dtw4, tests/adjudicate/forced_win_tests.cmake): the JSON API
# against `dtb probe` and `dtb line`, refusals, many clients, shutdown (seconds), and the explorer
# page in headless Chromium (tests/serve/browser_test.py). Labelled slow like the fixture they need.
add_test(NAME serve_api COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/serve/api_test.py $<TARGET_FILE:dtb>
  ${DTB_ADJUDICATE_DTW4})
set_tests_properties(serve_api PROPERTIES FIXTURES_REQUIRED adjudicate_dtw4 LABELS "serve;slow" TIMEOUT 300)

# The explorer page in headless Chromium (Debian chromium, chromium-driver, python3-selenium; see
# scripts/install-deps.sh). The screenshot it saves is the one of docs/explorer.png.
add_test(NAME serve_browser COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/serve/browser_test.sh $<TARGET_FILE:dtb>
  ${DTB_ADJUDICATE_DTW4} ${CMAKE_CURRENT_BINARY_DIR}/explorer.png)
set_tests_properties(serve_browser PROPERTIES FIXTURES_REQUIRED adjudicate_dtw4 LABELS "serve;slow" TIMEOUT 300)
