package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a browser does in an OpenID Connect login, over plain HTTP: keeps cookies (Keycloak's and
 * the application's, both on 127.0.0.1) and follows redirects one by one, so each hop can be seen;
 * fills in Keycloak's own login form; clicks a console button the way its Ajax post-back does.
 * Shared by the Payara Micro test ({@code OidcLoginIT}) and the full servers' one.
 */
public final class ProviderLoginBrowser {

    private static final Pattern FORM_ACTION = Pattern.compile("<form[^>]*id=\"kc-form-login\"[^>]*action=\"([^\"]+)\"");
    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta.faces.ViewState\"[^>]*value=\"([^\"]+)\"");

    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new LoopbackIsSecure())
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();
    public final List<String> hops = new ArrayList<>();

    public HttpResponse<String> get(String uri) throws Exception {
        hops.add("GET " + uri);
        return http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> put(String uri, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> post(URI uri, String form, String... headers) throws Exception {
        hops.add("POST " + uri);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Follows 302/303s (at most 10) from {@code r}; the first answer that is not one. */
    public HttpResponse<String> follow(HttpResponse<String> r) throws Exception {
        for (int i = 0; i < 10 && (r.statusCode() == 302 || r.statusCode() == 303); i++) {
            r = get(r.uri().resolve(r.headers().firstValue("Location").orElseThrow()).toString());
        }
        return r;
    }

    /** Opens the provider's authorization URL, fills in its login form and follows the flow back to the node. */
    public HttpResponse<String> logInAtProvider(String authorize, String user, String password) throws Exception {
        HttpResponse<String> loginPage = get(authorize);
        HttpResponse<String> back = follow(submitLogin(loginPage, user, password));
        assertThat(back.uri().getPort()).as("back at the node after " + hops + ", not " + back.statusCode() + " " + back.body())
                .isNotEqualTo(URI.create(authorize).getPort());
        return back;
    }

    /** Posts Keycloak's own login form (id kc-form-login) with this user and password. */
    public HttpResponse<String> submitLogin(HttpResponse<String> loginPage, String user, String password) throws Exception {
        assertThat(loginPage.statusCode()).as("Keycloak's login page").isEqualTo(200);
        Matcher action = FORM_ACTION.matcher(loginPage.body());
        assertThat(action.find()).as("Keycloak's login form in " + loginPage.body()).isTrue();
        URI to = loginPage.uri().resolve(action.group(1).replace("&amp;", "&"));
        return post(to, "username=" + enc(user) + "&password=" + enc(password) + "&credentialId=");
    }

    /** A click on the button {@code source} of {@code page}, as the console's Ajax post-back sends it. */
    public HttpResponse<String> facesAction(HttpResponse<String> page, String source) throws Exception {
        Matcher state = VIEW_STATE.matcher(page.body());
        assertThat(state.find()).as("view state on " + page.uri()).isTrue();
        String form = "jakarta.faces.partial.ajax=true&jakarta.faces.source=" + enc(source)
                + "&jakarta.faces.partial.execute=" + enc(source) + "&jakarta.faces.partial.render=actorsForm"
                + "&" + enc(source) + "=" + enc(source) + "&actorsForm=actorsForm&jakarta.faces.ViewState=" + enc(state.group(1));
        return post(URI.create(page.uri().toString().replaceAll("\\?.*", "")), form, "Faces-Request", "partial/ajax");
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /**
     * Cookies as a browser keeps them for a loopback address: Chromium and Firefox count
     * {@code http://127.0.0.1} as a secure context, so a cookie marked {@code Secure} (Keycloak
     * marks its login session's so) is stored and sent back there; the JDK's CookieManager would
     * drop it over plain HTTP.
     */
    private static final class LoopbackIsSecure extends java.net.CookieHandler {

        private final CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);

        private static URI asSecure(URI uri) {
            if (!"127.0.0.1".equals(uri.getHost()) || !"http".equals(uri.getScheme())) {
                return uri;
            }
            return URI.create("https" + uri.toString().substring("http".length()));
        }

        @Override
        public java.util.Map<String, List<String>> get(URI uri, java.util.Map<String, List<String>> headers) throws java.io.IOException {
            return cookies.get(asSecure(uri), headers);
        }

        @Override
        public void put(URI uri, java.util.Map<String, List<String>> headers) throws java.io.IOException {
            cookies.put(asSecure(uri), headers);
        }
    }
}
