# circle: sources added by the component
