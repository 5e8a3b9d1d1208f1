"""swetouch's installed agent for Harbor (swetouch_harbor.agent:SwetouchAgent)."""
