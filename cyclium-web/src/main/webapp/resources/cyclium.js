/* The console's small client side: ticking relative times, the exact time one click away,
 * copy buttons, and live updates (Faces websocket first, polling only when it is down). */
var cyclium = (function () {
    "use strict";
    var loadedAt = Date.now();

    function coarse(ms) {
        var s = Math.floor(Math.abs(ms) / 1000);
        if (s < 60) { return s + " s"; }
        if (s < 3600) { return Math.floor(s / 60) + " min"; }
        if (s < 86400) { return Math.floor(s / 3600) + " h"; }
        return Math.floor(s / 86400) + " d";
    }

    /* Ages were measured on the database clock when the page was rendered; keep counting from there. */
    function tick() {
        var elapsed = Date.now() - loadedAt;
        document.querySelectorAll("time.rel[data-age]").forEach(function (t) {
            if (t.classList.contains("exact")) { return; }
            var age = Number(t.getAttribute("data-age")) + elapsed - Number(t.getAttribute("data-born") || 0);
            t.textContent = Math.abs(age) < 1000 ? "just now" : age > 0 ? coarse(age) + " ago" : "in " + coarse(age);
        });
    }

    /* A click shows the exact UTC time in place (not only on hover); another click goes back. */
    document.addEventListener("click", function (ev) {
        var t = ev.target.closest && ev.target.closest("time.rel");
        if (t) {
            if (t.classList.toggle("exact")) {
                t.setAttribute("data-rel", t.textContent);
                t.textContent = t.getAttribute("data-exact");
            } else {
                t.textContent = t.getAttribute("data-rel");
                tick();
            }
            return;
        }
        var b = ev.target.closest && ev.target.closest("button.copy");
        if (b) {
            copy(b);
        }
    });

    function copy(button) {
        var pre = button.parentNode.querySelector("pre");
        var text = pre ? pre.textContent : "";
        var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 1500); };
        if (navigator.clipboard && window.isSecureContext) {
            navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
        } else {
            fallbackCopy(text);
            done();
        }
    }

    function fallbackCopy(text) {
        var area = document.createElement("textarea");
        area.value = text;
        area.setAttribute("readonly", "");
        area.style.position = "fixed";
        area.style.opacity = "0";
        document.body.appendChild(area);
        area.select();
        try { document.execCommand("copy"); } catch (ignored) { /* nothing else to try */ }
        document.body.removeChild(area);
    }

    /* ---- live updates ---------------------------------------------------------------------------
     * The page's template holds <f:websocket channel="cyclium">; each page may define a
     * <p:remoteCommand name="cycliumRefresh"> that re-reads the database and re-renders, and may set
     * cyclium.live.relevant = function (message) {...} to ignore changes it does not show.
     * Socket open: refresh on a pushed change (bursts coalesced), plus a slow safety refresh for
     * changes made on other nodes (those are not pushed here). Socket down: poll. */
    var live = {
        open: false,
        pushes: 0,
        refreshes: 0,
        lastRefresh: Date.now(),
        pollMs: 5000,
        safetyMs: 60000,
        pending: null,
        kinds: {},
        // journal rows concern only their episode's page (which sets its own filter): a list or the
        // dashboard refreshes on an episode's end, a finding or a lease, not on every step
        relevant: function (m) { return !m || m.what !== "step"; },
        onOpen: function () { live.open = true; live.show(); },
        onClose: function () { live.open = false; live.show(); },
        onMessage: function (message) {
            /* the server batches: {"what":"batch","items":[...]}, "many" when it dropped some */
            var items = message && message.what === "batch" ? message.items : [message];
            items.forEach(function (item) {
                live.pushes++;
                live.last = item;
                var what = item && item.what ? item.what : "?";
                live.kinds[what] = (live.kinds[what] || 0) + 1;
                if (what === "many" || live.relevant(item)) { live.soon(); }
            });
        },
        soon: function () {
            if (live.pending) { return; }
            live.pending = setTimeout(function () { live.pending = null; live.refresh(); }, 300);
        },
        refresh: function () {
            if (typeof window.cycliumRefresh !== "function" || document.hidden) { return; }
            live.lastRefresh = Date.now();
            live.refreshes++;
            window.cycliumRefresh();
        },
        show: function () {
            var el = document.getElementById("liveState");
            if (el) {
                el.textContent = live.open ? "live" : "polling";
                el.className = "badge " + (live.open ? "tone-ok" : "tone-wait");
                el.title = live.open ? "Changes on this node are pushed to this page; other nodes' every "
                        + (live.safetyMs / 1000) + " s" : "No push connection: the page reads again every " + (live.pollMs / 1000) + " s";
            }
        }
    };
    setInterval(function () {
        var quiet = Date.now() - live.lastRefresh;
        if ((!live.open && quiet >= live.pollMs) || quiet >= live.safetyMs) { live.refresh(); }
    }, 1000);
    setInterval(tick, 15000);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) { tick(); } });

    /* After an ajax re-render, new <time> elements carry fresh ages: count from now for them. */
    function restamp() {
        var elapsed = Date.now() - loadedAt;
        document.querySelectorAll("time.rel[data-age]:not([data-born])").forEach(function (t) {
            t.setAttribute("data-born", String(elapsed));
        });
    }
    document.addEventListener("DOMContentLoaded", function () { restamp(); live.show(); });
    if (window.jQuery) { jQuery(document).on("pfAjaxComplete", restamp); }

    return { live: live, tick: tick, copy: copy };
}());
