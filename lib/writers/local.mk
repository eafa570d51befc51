# writers: sources added by the component
