package io.cyclium.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The URL of a list page with its filters and cursor ({@code episodes.xhtml?actor=a&cursor=…}):
 * what the paging links point at and where the Filter button redirects, so every page of every
 * filter can be bookmarked. Blank values are left out.
 */
final class PageUrl {

    private final StringBuilder url;
    private char separator = '?';

    private PageUrl(String page) {
        url = new StringBuilder(page);
    }

    /** A page relative to the console's root, e.g. {@code episodes.xhtml}. */
    static PageUrl of(String page) {
        return new PageUrl(page);
    }

    PageUrl with(String name, Object value) {
        String text = value == null ? null : value.toString();
        if (text != null && !text.isBlank()) {
            url.append(separator).append(name).append('=').append(URLEncoder.encode(text.trim(), StandardCharsets.UTF_8));
            separator = '&';
        }
        return this;
    }

    @Override
    public String toString() {
        return url.toString();
    }
}
