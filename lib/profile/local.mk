# profile: sources added by the component
