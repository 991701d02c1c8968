/* not part of the "basic" goal (the "all" goal adds it): it does not compile */
int broken( { return 0; }
