package io.cyclium.it;

import java.net.CookieManager;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A browser-like client logged in to the console as the test admin (the login form, a session cookie). */
final class ConsoleLogin {

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"");

    private ConsoleLogin() {
    }

    static HttpClient admin(URL base) throws Exception {
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        URI login = URI.create(base.toString()).resolve("login.xhtml");
        String form = browser.send(HttpRequest.newBuilder(login).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher state = VIEW_STATE.matcher(form);
        if (!state.find()) {
            throw new AssertionError("no view state in the login form");
        }
        String body = "login=login&login%3Anext=&login%3Ausername=admin&login%3Apassword="
                + URLEncoder.encode(ConsoleUsers.adminPassword(), StandardCharsets.UTF_8)
                + "&login%3Asubmit=Log+in&jakarta.faces.ViewState=" + URLEncoder.encode(state.group(1), StandardCharsets.UTF_8);
        browser.send(HttpRequest.newBuilder(login).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        return browser;
    }

    static HttpResponse<String> get(HttpClient browser, URL base, String page) throws Exception {
        return browser.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve(page)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
